"""Every per-language string of the site's hooks and of the command line, in one place.

``STRINGS[language][key]`` is one string, keyed ``<module>.<name>`` (``gpu_data.caption``,
``matrix.verdict.all``). Strings go through :meth:`str.format`, always: ``{name}`` is a value the
caller passes, and a literal brace is written doubled (``{{ #triton-versions }}``). Both languages
have the same keys and the same placeholders in each string (tests/test_interface.py checks it).

Entry pages are not here: their text lives in docs/<language>/. Only the words the hooks and the
command line put around them are.
"""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # hooks/checked_report.py
        "checked_report.caption": "Printed by `{name}()` in `{snippet}`, run under Triton's interpreter with "
                                  "`triton_checked.checked()` when this page was built.",
        # hooks/claimed_errors.py
        "claimed_errors.title": "Error messages this entry answers:",
        "claimed_errors.in_parentheses": " ({where})",
        "claimed_errors.where.compile": "at compile time",
        "claimed_errors.where.launch": "at launch",
        "claimed_errors.where.interpreter": "under the interpreter",
        "claimed_errors.where.runtime": "from the CUDA runtime",
        "claimed_errors.where.install": "at install or import",
        # hooks/downloads.py
        "downloads.script": "Download {name}",
        "downloads.notebook": "Open it as a notebook",
        "downloads.needs": "Both run on their own with torch and triton installed; without a GPU, on "
                           "Triton's interpreter. The notebook shows the output of a run on the interpreter.",
        "downloads.entry": "Entry",
        "downloads.intro": "Run the cells in order; needs torch and triton. Without an NVIDIA GPU the first cell "
                           "switches to Triton's CPU interpreter. The outputs shown come from a run on the "
                           "interpreter.",
        "downloads.download_notebook": "Download {name}",
        "downloads.back": "Back to the entry",
        # hooks/nav_titles.py
        "nav.home": "Home",
        # hooks/error_index.py
        "error_index.group.compile": "At compile time",
        "error_index.group.launch": "At launch",
        "error_index.group.interpreter": "In the interpreter",
        "error_index.group.runtime": "From the CUDA runtime",
        "error_index.group.install": "At install or import",
        "error_index.header": "| Message | Entry |\n| --- | --- |",
        "error_index.also": "also shown in",
        # hooks/gpu_data.py
        "gpu_data.caption": "Measured on {gpu} (driver {driver}, CUDA {cuda}, torch {torch}, Triton {triton}) "
                            "on {day} by `{command}`.",
        "gpu_data.caption_cpu": "Run on {machine}, without a GPU (torch {torch}, Triton {triton}) on {day} by "
                                "`{command}`.",
        "gpu_data.missing_title": "Not yet measured",
        "gpu_data.missing": "No GPU data for `{name}` yet. On a machine with an NVIDIA GPU, run "
                            "`make bench ONLY={id}` to generate it.",
        "gpu_data.missing_command": "No data for `{name}` yet: `{command}` generates it.",
        "gpu_data.yes": "yes",
        "gpu_data.no": "no",
        # hooks/gpu_test_runs.py
        "gpu_test_runs.column.gpu": "GPU",
        "gpu_test_runs.column.date": "date",
        "gpu_test_runs.column.torch": "torch",
        "gpu_test_runs.column.triton": "Triton",
        "gpu_test_runs.column.passed": "passed",
        "gpu_test_runs.column.failed": "failed",
        "gpu_test_runs.column.skipped": "skipped",
        "gpu_test_runs.failed": "Failed in that run:",
        "gpu_test_runs.none": '!!! warning "Not yet verified on a GPU"\n'
                              "    Run `pytest --record-gpu-run` on a machine with an NVIDIA GPU.\n",
        "gpu_test_runs.checked.ci": "Checked on Triton's interpreter (CPU) in every CI run.",
        "gpu_test_runs.checked.gpu": " On {gpu} (CUDA {cuda}, torch {torch}, Triton {triton}), {day}: {passed} of "
                                     "this entry's tests passed, {failed} failed, {skipped} skipped "
                                     "(interpreter-only).",
        "gpu_test_runs.checked.none": " Not yet run on a GPU.",
        # words a question is full of that find nothing: dropped from the query before it is searched
        # (space-separated; hooks/search.py hands them to overrides/main.html; a query of nothing but these is searched as typed)
        "search.stop_words": "a an the is are am was were be been being i me my we our you your it its "
                             "this that these those how what why when where which who do does did doing "
                                          "can could should would will to of in on at for with about into by and or "
                                          "but so if not no any some there get got keep keeps",
        # hooks/version_matrix.py
        "version_matrix.heading": "On which Triton versions {{ #triton-versions }}",
        "version_matrix.intro": "Every claim on this page that the interpreter can check was run against each "
                                "Triton release from {first} to {last} ({versions}) on {day} ({backend}; Python "
                                "{python}, torch {torch}). `{command}` runs it again.",
        "version_matrix.changed": "Claims that differ between versions:",
        "version_matrix.same": "Each of the {n} claims gives the same result on every release.",
        "version_matrix.backend_interpreter": "Triton's interpreter, TRITON_INTERPRET=1, on CPU tensors",
        "version_matrix.all": "Every claim, one test each",
        "version_matrix.claim": "Claim (test)",
        "version_matrix.result": "Result",
        "version_matrix.why": "Why",
        "version_matrix.import": "On {versions} the entry's code does not import: `{error}`",
        "version_matrix.import_why": "{line} — {why}.",
        "version_matrix.import_row": "the code does not import on {versions} (below the table)",
        "version_matrix.missing": "This entry has not been run against other Triton versions yet: run "
                                  "`{command} --only {id}`.",
        "version_matrix.checker_intro": "The checked interpreter's tests were run against each Triton release from "
                                        "{first} to {last} ({versions}) on {day} ({backend}; Python {python}, torch "
                                        "{torch}). `{command}` runs them again.",
        "version_matrix.checker_missing": "The checked interpreter's tests have not been run against other Triton "
                                          "versions yet: run `{command}`.",
        # triton_faq/matrix.py: one claim's verdict across the Triton versions
        "matrix.verdict.all": "holds on {span}",
        "matrix.verdict.since": "changed in {first}: holds on {span}",
        "matrix.verdict.until": "changed in {next}: holds on {span}, not after",
        "matrix.verdict.mixed": "holds on {held}; not on {other}",
        "matrix.verdict.none": "does not hold on {span}",
        "matrix.verdict.skipped": "not run on the interpreter (GPU only)",
        "matrix.verdict.not_collected": "absent",
        # triton_faq/explain.py
        # triton_faq/doctor.py
        "doctor.ok": "ok",
        "doctor.warning": "warning",
        "doctor.problem": "problem",
        "doctor.skipped": "skipped",
        "doctor.see": "see",
        "doctor.summary": "{problems} problem(s), {warnings} warning(s)",
        "explain.colon": ":",
        "explain.known": "Triton prints this message, and no entry of the handbook answers it yet:",
        "explain.known_raised": "Raised by",
        "explain.known_releases": "Printed by Triton",
        "explain.known_report": "To report it",
        "explain.nearest": "The nearest entries:",
        "explain.known_how": "search {search} for it; if no one reported it, open an issue at {new} with a short "
                             "script that prints it",
        "explain.matched": "matches",
        "explain.short": "Short answer",
        "explain.fix": "The fix",
        "explain.more": "Read more",
        "explain.unsure": "Not sure; the closest entries:",
        "explain.several": "Several entries answer this message:",
        "explain.causes": "This message has more than one cause; what tells them apart:",
        "explain.otherwise": "Otherwise",
        "explain.where.compile": "compile time",
        "explain.where.launch": "launch",
        "explain.where.interpreter": "interpreter",
        "explain.where.runtime": "CUDA runtime",
        "explain.where.install": "install or import",
        # hooks/lint_rules.py: the "Lint rules" page
        "lint.status": "On by default",
        "lint.default.on": "yes",
        "lint.default.off": "no: opt in with `--select {rule}`",
        "lint.entry": "Entry",
        "lint.precision.rule": "Rule",
        "lint.precision.test.before": "Test corpus, before",
        "lint.precision.test.after": "Test corpus, after (tuned on it)",
        "lint.precision.dev.before": "Development corpus, before",
        "lint.precision.dev.after": "Development corpus, after",
        "lint.precision.cell": "{ok} of {total} ({percent}%)",
        "lint.precision.none": "no finding",
        "lint.precision.all": "All default rules",
        "lint.precision.opt_in": "(opt-in)",
        "lint.finds.on": "`triton-faq lint` finds this pitfall in your code: rule [{rule}]({link}), on by default.",
        "lint.finds.off": "`triton-faq lint --select {rule}` looks for this pitfall in your code: rule [{rule}]({link}) (opt-in).",
        "lint.rule.TP001": "A masked `tl.load` with no `other` feeds `tl.max`, `tl.min` or a product: the masked lanes take part in the reduction.",
        "lint.rule.TP003": "A `tl.load` or `tl.store` at `pid * BLOCK + tl.arange(...)` without a mask: the last block reaches past the end. Under `if` on a constexpr (`if EVEN_N:`) it is assumed that the blocks divide evenly.",
        "lint.rule.TP006": "`tl.max`, `tl.min`, `tl.argmax` or `tl.argmin` with no `axis` on a block known to be 2-D: one value for the whole tile. The largest magnitude of a tile, `tl.max(tl.abs(x))`, is left alone: block-wise quantisation means it.",
        "lint.rule.TP009": "`tl.arange` whose constant range is not a power of two, or a launch that passes such a block size to it. When the kernel is not in the file, it assumes a `BLOCK...` argument sizes a `tl.arange`.",
        "lint.rule.TP013": "`tl.device_print` outside an `if` on the program id: every program prints.",
        "lint.rule.TP014": "`tl.device_assert` in a kernel without `@triton.jit(debug=True)`: compiled out (it assumes `TRITON_DEBUG` is not set).",
        "lint.rule.TP017": "A timer (`do_bench`, `measure`, ...) is handed the return value of a launch, `t(kernel[grid](...))`: the kernel ran once, untimed.",
        "lint.rule.TP018": "A host timer is read again after a launch (`kernel[grid](...)`, or a call of a function of the same file that launches one, or of a callable the function was handed, assumed to launch GPU work) with no synchronize in between. Timers in a function whose name or docstring says CPU or interpreter are left alone.",
        "lint.rule.TP021": "`tl.math.tanh`: not in Triton 3.x (only when the target release is 3.0 or later).",
        "lint.rule.TP022": "`(exp(2x) - 1) / (exp(2x) + 1)` or `(exp(x) - exp(-x)) / (exp(x) + exp(-x))`, also split over several statements or with `exp` imported under another name: NaN once `exp` overflows.",
        "lint.rule.TP024": "An offset built on the program id (int32), multiplied by anything but a constant with no int64 cast, as in `pid * BLOCK` or `offs_m[:, None] * K`. A heuristic: it cannot know how large the tensors are.",
        "lint.rule.TP028": "An autotuned kernel that stores back a changed value it loaded from the same address, or adds atomically, with no `restore_value`, `reset_to_zero` or `pre_hook`. An atomic add that no config reaches (`if SPLIT_K == 1:` with every config at 1), or after a store to the same pointer, is left alone.",
        "lint.rule.TP031": "`do_bench(..., fast_flush=...)` (a TypeError), or `do_bench` / `do_bench_cudagraph` (or a copy in the file that defaults to the mean) with neither `quantiles` nor `return_mode`: the mean. The mean is reported once per file.",
        "lint.rule.TP032": "`tl.make_block_ptr`, once per file; only when the target release is 3.7 or later (`--triton-version`).",
        "lint.rule.TP033": "A kernel reads a module-level global bound to a plain value (an annotation `X: tl.constexpr = ...` included, when the target release is 3.3 or later), not to `tl.constexpr(...)`.",
        "lint.rule.TP034": "`tl.argmax` or `tl.argmin` with `tie_break_left=False`.",
        "lint.rule.TP035": "`tl.dot` with no `input_precision`: TF32 if the inputs are float32, which it assumes unless a cast to a 16-bit or 8-bit type reaches an operand.",
        "lint.rule.TP037": "A launch whose grid axis 1 or 2 is a data size (`x.shape[0]`, rows, `batch * heads`) rather than a count of blocks (`triton.cdiv(n, BLOCK)`), or a constant above 65535. A heuristic: it cannot know how large the size gets.",
        "lint.rule.TP043": "`return` inside a `for` or `while` loop of a kernel: refused when compiled.",
        "lint.rule.TP046": "Python's `max`, `min` or `abs` called on a block in a kernel (a `tl.load`, `tl.arange` or arithmetic on them).",
        "lint.rule.TP047": "Python a compiled kernel refuses (a dict, a set, `try`, a lambda, a generator, the walrus operator, item assignment), or a comprehension with an `if`, which compiles and is silently dropped (up to Triton 3.8; not reported when the target release is 3.9 or later). Decorators and host code are not looked at.",
        "lint.rule.TP048": "Python's `and` or `or` on blocks, `if` on a block, or `a < M & b < N` (a chained comparison).",
    },
    "zh": {
        # hooks/checked_report.py
        "checked_report.caption": "以上由 `{snippet}` 中的 `{name}()` 输出：构建本页时在 Triton 解释器中用 "
                                  "`triton_checked.checked()` 运行得到。",
        # hooks/claimed_errors.py
        "claimed_errors.title": "本条目解答的报错信息：",
        "claimed_errors.in_parentheses": "（{where}）",
        "claimed_errors.where.compile": "编译时",
        "claimed_errors.where.launch": "启动时",
        "claimed_errors.where.interpreter": "解释器中",
        "claimed_errors.where.runtime": "CUDA 运行时",
        "claimed_errors.where.install": "安装或导入时",
        # hooks/downloads.py
        "downloads.script": "下载 {name}",
        "downloads.notebook": "以 notebook 打开",
        "downloads.needs": "两者都可以脱离本仓库单独运行，只需安装 torch 和 triton；没有 GPU 时走 Triton 解释器。"
                           "notebook 里显示的是在解释器上实际运行的输出。",
        "downloads.entry": "条目",
        "downloads.intro": "按顺序运行各个单元格，需要 torch 和 triton。没有 NVIDIA GPU 时，第一个单元格会切换到 "
                           "Triton 的 CPU 解释器。显示的输出来自在解释器上的一次实际运行。",
        "downloads.download_notebook": "下载 {name}",
        "downloads.back": "返回条目页面",
        # hooks/nav_titles.py
        "nav.home": "首页",
        # hooks/error_index.py
        "error_index.group.compile": "编译时",
        "error_index.group.launch": "启动（launch）时",
        "error_index.group.interpreter": "解释器里",
        "error_index.group.runtime": "CUDA 运行时",
        "error_index.group.install": "安装或导入时",
        "error_index.header": "| 报错信息 | 条目 |\n| --- | --- |",
        "error_index.also": "另见",
        # hooks/gpu_data.py
        "gpu_data.caption": "测量于 {gpu}（驱动 {driver}，CUDA {cuda}，torch {torch}，Triton {triton}），{day}，"
                            "命令 `{command}`。",
        "gpu_data.caption_cpu": "运行于 {machine}，无 GPU（torch {torch}，Triton {triton}），{day}，命令 `{command}`。",
        "gpu_data.missing_title": "尚未测量",
        "gpu_data.missing": "`{name}` 还没有 GPU 数据。在有 NVIDIA GPU 的机器上运行 `make bench ONLY={id}` 即可生成。",
        "gpu_data.missing_command": "`{name}` 还没有数据：运行 `{command}` 即可生成。",
        "gpu_data.yes": "是",
        "gpu_data.no": "否",
        # hooks/gpu_test_runs.py
        "gpu_test_runs.column.gpu": "GPU",
        "gpu_test_runs.column.date": "日期",
        "gpu_test_runs.column.torch": "torch",
        "gpu_test_runs.column.triton": "Triton",
        "gpu_test_runs.column.passed": "通过",
        "gpu_test_runs.column.failed": "失败",
        "gpu_test_runs.column.skipped": "跳过",
        "gpu_test_runs.failed": "那次运行中失败的测试：",
        "gpu_test_runs.none": '!!! warning "尚未在 GPU 上验证"\n'
                              "    在有 NVIDIA GPU 的机器上运行 `pytest --record-gpu-run`。\n",
        "gpu_test_runs.checked.ci": "每次 CI 都在 Triton 解释器（CPU）上运行。",
        "gpu_test_runs.checked.gpu": "{day} 在 {gpu}（CUDA {cuda}，torch {torch}，Triton {triton}）上：本条目的测试"
                                     "通过 {passed} 个，失败 {failed} 个，跳过 {skipped} 个（仅限解释器的测试）。",
        "gpu_test_runs.checked.none": "尚未在 GPU 上运行。",
        # 问句里找不到任何东西的词：搜索前从查询里去掉（空格分隔；hooks/search.py 交给 overrides/main.html；只剩这些词的查询按原样搜索）
        "search.stop_words": "为什么 为啥 怎么办 怎么样 怎么 怎样 如何 什么 是不是 有没有 能不能 会不会 "
                             "可不可以 我的 我们 我 你 他 它 这个 那个 这样 那样 一下 一直 总是 还是 但是 就是 "
                             "只是 是否 不是 不会 不了 为了 请问 里 的 了 吗 呢 吧 啊 呀 嘛 么 是 会 都 就 也 还 又 却 想",
        # hooks/version_matrix.py
        "version_matrix.heading": "在哪些 Triton 版本上成立 {{ #triton-versions }}",
        "version_matrix.intro": "本页中解释器能检查的每条说法，都在 Triton {first} 到 {last} 的每个版本（{versions}）上"
                                "跑过，日期 {day}（{backend}；Python {python}，torch {torch}）。重新运行：`{command}`。",
        "version_matrix.changed": "在不同版本上结果不同的说法：",
        "version_matrix.same": "这 {n} 条说法在每个版本上结果都相同。",
        "version_matrix.backend_interpreter": "Triton 解释器，TRITON_INTERPRET=1，CPU 张量",
        "version_matrix.all": "全部说法（每条一个测试）",
        "version_matrix.claim": "说法（测试）",
        "version_matrix.result": "结果",
        "version_matrix.why": "原因",
        "version_matrix.import": "在 {versions} 上本条目的代码无法导入：`{error}`",
        "version_matrix.import_why": "{line}。原因：{why}。",
        "version_matrix.import_row": "在 {versions} 上代码无法导入（见表下）",
        "version_matrix.missing": "本条目还没有在其他 Triton 版本上跑过：运行 `{command} --only {id}`。",
        "version_matrix.checker_intro": "带检查的解释器自身的测试在 Triton {first} 到 {last} 的每个版本（{versions}）上"
                                        "跑过，日期 {day}（{backend}；Python {python}，torch {torch}）。重新运行：`{command}`。",
        "version_matrix.checker_missing": "带检查的解释器的测试还没有在其他 Triton 版本上跑过：运行 `{command}`。",
        # triton_faq/matrix.py: one claim's verdict across the Triton versions
        "matrix.verdict.all": "在 {span} 上成立",
        "matrix.verdict.since": "{first} 起有变化：在 {span} 上成立",
        "matrix.verdict.until": "{next} 起有变化：在 {span} 上成立，之后不再成立",
        "matrix.verdict.mixed": "在 {held} 上成立；在 {other} 上不成立",
        "matrix.verdict.none": "在 {span} 上都不成立",
        "matrix.verdict.skipped": "解释器上不运行（仅 GPU）",
        "matrix.verdict.not_collected": "不存在",
        # triton_faq/explain.py
        # triton_faq/doctor.py
        "doctor.ok": "正常",
        "doctor.warning": "警告",
        "doctor.problem": "问题",
        "doctor.skipped": "跳过",
        "doctor.see": "见",
        "doctor.summary": "{problems} 个问题，{warnings} 个警告",
        "explain.colon": "：",
        "explain.known": "这条报错是 Triton 自己打印的，本手册还没有条目解答它：",
        "explain.known_raised": "出处",
        "explain.known_releases": "会打印它的 Triton 版本",
        "explain.known_report": "如何报告",
        "explain.nearest": "最接近的条目：",
        "explain.known_how": "先在 {search} 搜索这条报错；没有人报告过的话，在 {new} 提一个 issue，附上能触发它的最短脚本",
        "explain.matched": "匹配",
        "explain.short": "简短回答",
        "explain.fix": "修复方法",
        "explain.more": "详见",
        "explain.unsure": "不太确定；最接近的条目：",
        "explain.several": "有几个条目都解答这条报错：",
        "explain.causes": "这条报错不止一个原因；怎么区分：",
        "explain.otherwise": "其他情况",
        "explain.where.compile": "编译时",
        "explain.where.launch": "启动时",
        "explain.where.interpreter": "解释器",
        "explain.where.runtime": "CUDA 运行时",
        "explain.where.install": "安装或导入",
        # hooks/lint_rules.py：「Lint 规则」页
        "lint.status": "默认开启",
        "lint.default.on": "是",
        "lint.default.off": "否：用 `--select {rule}` 开启",
        "lint.entry": "条目",
        "lint.precision.rule": "规则",
        "lint.precision.test.before": "测试语料，改动前",
        "lint.precision.test.after": "测试语料，改动后（已据其调整）",
        "lint.precision.dev.before": "开发语料，改动前",
        "lint.precision.dev.after": "开发语料，改动后",
        "lint.precision.cell": "{total} 条中 {ok} 条（{percent}%）",
        "lint.precision.none": "无报告",
        "lint.precision.all": "全部默认规则",
        "lint.precision.opt_in": "（需手动开启）",
        "lint.finds.on": "`triton-faq lint` 能在你的代码里找出这个坑：规则 [{rule}]({link})，默认开启。",
        "lint.finds.off": "`triton-faq lint --select {rule}` 会在你的代码里查找这个坑：规则 [{rule}]({link})（需手动开启）。",
        "lint.rule.TP001": "带掩码（mask）却没有 `other` 的 `tl.load`，结果流入 `tl.max`、`tl.min` 或连乘：被掩掉的通道也参与了归约（reduction）。",
        "lint.rule.TP003": "在 `pid * BLOCK + tl.arange(...)` 处 `tl.load` 或 `tl.store` 却没有掩码（mask）：最后一个块会越过末尾。若位于以 constexpr 为条件的 `if`（如 `if EVEN_N:`）之下，则假定各块恰好整除。",
        "lint.rule.TP006": "对已知为二维的块调用 `tl.max`、`tl.min`、`tl.argmax` 或 `tl.argmin` 却不写 `axis`：整个 tile 只得到一个值。整块取绝对值最大值 `tl.max(tl.abs(x))` 不在此列：按块量化本来就要这个值。",
        "lint.rule.TP009": "`tl.arange` 的常量范围不是 2 的幂，或某次启动（launch）把这样的块大小传给它。kernel 不在同一文件时，假定名为 `BLOCK...` 的参数决定 `tl.arange` 的长度。",
        "lint.rule.TP013": "`tl.device_print` 没有放在以 program id 为条件的 `if` 里：每个 program 都会打印。",
        "lint.rule.TP014": "kernel 没有 `@triton.jit(debug=True)` 却使用 `tl.device_assert`：断言被编译掉（假定未设置 `TRITON_DEBUG`）。",
        "lint.rule.TP017": "把一次启动（launch）的返回值交给计时器，如 `t(kernel[grid](...))`：kernel 在计时开始前就已运行了一次，没有被计时。",
        "lint.rule.TP018": "启动（launch）之后再次读取主机端计时器，中间没有 synchronize。启动指 `kernel[grid](...)`、同一文件中会启动 kernel 的函数，或作为参数传入的可调用对象（假定它会提交 GPU 任务）。函数名或文档字符串写明 CPU 或解释器的计时不报。",
        "lint.rule.TP021": "`tl.math.tanh`：Triton 3.x 中已不存在（仅当目标版本为 3.0 或更新时）。",
        "lint.rule.TP022": "`(exp(2x) - 1) / (exp(2x) + 1)` 或 `(exp(x) - exp(-x)) / (exp(x) + exp(-x))`，拆成几条语句、或以别名导入 `exp` 也算：`exp` 一旦溢出，结果就是 NaN。",
        "lint.rule.TP024": "以 program id（int32）算出的偏移未转换为 int64 就与非常量相乘，如 `pid * BLOCK` 或 `offs_m[:, None] * K`。这是启发式规则：它无法知道张量有多大。",
        "lint.rule.TP028": "经过自动调优的 kernel 从某个地址读出的值，修改后又写回同一地址，或对其做原子加，却没有 `restore_value`、`reset_to_zero` 或 `pre_hook`。没有任何配置会走到的原子加（如 `if SPLIT_K == 1:` 而所有配置都取 1），或在同一指针先写入后再原子加，不报。",
        "lint.rule.TP031": "`do_bench(..., fast_flush=...)`（会抛出 TypeError），或 `do_bench`、`do_bench_cudagraph`（以及文件里默认返回平均值的副本）既没有 `quantiles` 也没有 `return_mode`（返回的是平均值）。平均值每个文件只报一次。",
        "lint.rule.TP032": "`tl.make_block_ptr`，每个文件只报一次；仅当目标版本为 3.7 或更新时（`--triton-version`）。",
        "lint.rule.TP033": "kernel 读取了一个绑定到普通值的模块级全局变量（目标版本为 3.3 或更新时，也包括只加注解的 `X: tl.constexpr = ...`），而不是 `tl.constexpr(...)`。",
        "lint.rule.TP034": "`tl.argmax` 或 `tl.argmin` 使用 `tie_break_left=False`。",
        "lint.rule.TP035": "`tl.dot` 没有指定 `input_precision`：若输入是 float32（本规则如此假定，除非有转换到 16 位或 8 位类型的操作流入操作数），会以 TF32 计算。",
        "lint.rule.TP037": "某次启动的 grid 第 1 或第 2 维是数据规模（`x.shape[0]`、行数、`batch * heads`），而不是块数（`triton.cdiv(n, BLOCK)`），或是大于 65535 的常量。这是启发式规则：它无法知道规模会涨到多大。",
        "lint.rule.TP043": "kernel 的 `for` 或 `while` 循环里有 `return`：编译时会被拒绝。",
        "lint.rule.TP046": "在 kernel 里对块（`tl.load`、`tl.arange` 或由它们算出的值）调用 Python 的 `max`、`min` 或 `abs`。",
        "lint.rule.TP047": "编译后的 kernel 不接受的 Python 写法（dict、set、`try`、lambda、生成器、海象运算符、按下标赋值），或带 `if` 的推导式（能编译，但 `if` 被悄悄丢掉；直到 Triton 3.8，目标版本为 3.9 或更新时不报）。装饰器和主机端代码不在检查范围内。",
        "lint.rule.TP048": "对块使用 Python 的 `and` 或 `or`、对块写 `if`，或写成 `a < M & b < N`（链式比较）。",
    },
}


def text(language: str, key: str, /, **values) -> str:
    """The string ``key`` in ``language``, formatted with ``values``.

    Raises KeyError naming the key and the language when either is unknown, or when the string
    needs a value that was not passed.
    """
    strings = STRINGS.get(language)
    if strings is None:
        raise KeyError(f"no interface language {language!r} (there are {', '.join(STRINGS)}) "
                       f"for the string {key!r}")
    if key not in strings:
        raise KeyError(f"no interface string {key!r} in language {language!r} (triton_faq/ui_text.py)")
    try:
        return strings[key].format(**values)
    except (KeyError, IndexError) as error:
        missing = error.args[0] if error.args else "?"
        raise KeyError(f"the interface string {key!r} in language {language!r} needs a value for "
                       f"{{{missing}}}") from None
