"""TP075's GPU evidence (`triton-faq bench`): what tl.atomic_add returns on the GPU, lane by lane."""

from snippets.language import atomic_add_return_value as entry
from triton_faq.evidence import gpu_evidence, label, table


@gpu_evidence("atomic-add-returns")
def observe_atomic_add_returns():
    """The old values each lane got back: eight lanes adding 1 to one counter (four programs), and a
    masked add whose last four lanes are masked off (counters start at 5), and issue 7402's kernel."""
    tickets, final = entry.lane_tickets(programs=4, BLOCK=8)
    old, counters = entry.masked_lanes(BLOCK=8, start=5)
    rows = [
        ["tickets: 4 programs × 8 lanes, one address", str(tickets.tolist()), f"counter = {final}"],
        ["masked: lanes 0-3 add, 4-7 masked off", str(old), f"counters = {counters}"],
        ["issue 7402: [1]-element result broadcast to a [1, 8] store", str(entry.broadcast_ticket()), "expected row 1 = 2"],
    ]
    return table([label("kernel", "kernel"), label("returned / stored", "返回值 / 写入结果"), label("memory after", "之后的内存")],
                 rows)
