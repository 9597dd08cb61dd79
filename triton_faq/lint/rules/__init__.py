"""The rules, one module each: ``RULE`` (what it is), ``check(facts)`` (its findings, as (node, message)
pairs) and ``BAD`` / ``GOOD`` (code it must and must not report; the tests run both)."""

from __future__ import annotations

from importlib import import_module

from ..model import Rule

MODULES = ("tp001", "tp003", "tp006", "tp009", "tp013", "tp014", "tp017", "tp018", "tp021", "tp022", "tp024",
           "tp028", "tp031", "tp032", "tp033", "tp034", "tp035", "tp037", "tp043", "tp046", "tp047", "tp048")

CHECKS = {}
CASES = {}
RULES: dict[str, Rule] = {}
for _name in MODULES:
    _module = import_module(f"{__name__}.{_name}")
    RULES[_module.RULE.id] = _module.RULE
    CHECKS[_module.RULE.id] = _module.check
    CASES[_module.RULE.id] = (_module.BAD, _module.GOOD)
DEFAULT = tuple(rule_id for rule_id, rule in RULES.items() if rule.default)
