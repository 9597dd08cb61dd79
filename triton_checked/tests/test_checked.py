"""triton_checked.checked(): bounds and race checks on unchanged kernels, run by the interpreter.

Correct kernels (masked, 2-D, strided, transposed, atomics, block pointers, shared read-only
inputs) must pass without a report; each kind of mistake must be reported with the kernel
line, the argument, the offset, the size or both programs, before memory is touched.
"""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import torch

from triton_checked import CheckedModeUnavailable, DataRace, OutOfBounds, checked

import triton
import triton.language as tl

pytestmark = pytest.mark.interpreter  # the checks run kernels under Triton's interpreter

HERE = os.path.relpath(__file__)
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # triton_checked/


@triton.jit
def copy_masked(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def copy_unmasked_load(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # no mask: the last block reads past n
    tl.store(y_ptr + offs, x, mask=offs < n)


@triton.jit
def copy_unmasked_store(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, x)  # no mask: the last block writes past n


@triton.jit
def shift_left(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs - 1, mask=mask), mask=mask)  # reads x[-1]


@triton.jit
def far_overrun(x_ptr, y_ptr, FAR: tl.constexpr):
    tl.store(y_ptr, tl.load(x_ptr + FAR))


@triton.jit
def tile_2d(x_ptr, y_ptr, rows, cols, sxr, sxc, syr, syc, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)[:, None]
    c = tl.program_id(1) * BC + tl.arange(0, BC)[None, :]
    mask = (r < rows) & (c < cols)
    x = tl.load(x_ptr + r * sxr + c * sxc, mask=mask)
    tl.store(y_ptr + r * syr + c * syc, x * 2, mask=mask)


@triton.jit
def tile_2d_contiguous_only(x_ptr, y_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)[:, None]
    c = tl.program_id(1) * BC + tl.arange(0, BC)[None, :]
    mask = (r < rows) & (c < cols)
    tl.store(y_ptr + r * cols + c, tl.load(x_ptr + r * cols + c, mask=mask), mask=mask)


@triton.jit
def block_pointer_copy(x_ptr, y_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (rows, cols), (cols, 1), (tl.program_id(0) * BR, 0), (BR, BC), (1, 0))
    dst = tl.make_block_ptr(y_ptr, (rows, cols), (cols, 1), (tl.program_id(0) * BR, 0), (BR, BC), (1, 0))
    tl.store(dst, tl.load(src, boundary_check=(0, 1)), boundary_check=(0, 1))


@triton.jit
def scale_rows(x_ptr, w_ptr, y_ptr, cols, BC: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BC)
    mask = c < cols
    w = tl.load(w_ptr + c, mask=mask)  # every program reads the same weights: no race
    tl.store(y_ptr + row * cols + c, tl.load(x_ptr + row * cols + c, mask=mask) * w, mask=mask)


@triton.jit
def double_in_place(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


@triton.jit
def sum_racy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    part = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0))
    tl.store(out_ptr, tl.load(out_ptr) + part)  # load-add-store from every program


@triton.jit
def sum_atomic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))


@triton.jit
def histogram_and_first_claim(x_ptr, bins_ptr, first_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    b = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + b, 1, mask=mask)  # programs collide on the same bins, atomically
    tl.atomic_cas(first_ptr, -1, tl.program_id(0))  # the first program to get here claims the flag


@triton.jit
def pairs_store_same_element(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + pid // 2, tl.sum(tl.load(x_ptr + offs)))  # programs 0 and 1 share out[0]


@triton.jit
def read_neighbour_output(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))
    # what the previous program stored (a block mask: Triton 3.9's interpreter refuses the scalar mask pid > 0)
    prev = tl.load(y_ptr + offs - BLOCK, mask=offs >= BLOCK, other=0.0)
    tl.store(x_ptr + offs, prev)


@triton.jit
def flat_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # element i at offset i: right only for a contiguous x
    tl.store(y_ptr + offs, x, mask=mask)


@triton.jit
def strided_copy(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * stride, mask=mask), mask=mask)


def run(kernel, grid, *args, **kwargs):
    kernel[grid](*args, **kwargs)


# -- correct kernels: no report --------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 100, 128, 1000])
def test_masked_copy_passes_and_is_right(n):
    x, y = torch.randn(n), torch.full((n,), float("nan"))
    with checked():
        copy_masked[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
    assert torch.equal(x, y)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "padded rows"])
def test_2d_kernel_that_uses_the_strides_passes_on_any_layout(layout):
    base = torch.randn(40, 72)
    x = {"contiguous": base[:, :36].contiguous(), "transposed": base[:36, :40].t(),
         "sliced": base[:, ::2], "padded rows": base[:, :36]}[layout]
    y = torch.full((x.shape[1], x.shape[0]), float("nan")).t()  # a transposed output, too
    with checked():
        tile_2d[(triton.cdiv(x.shape[0], 16), triton.cdiv(x.shape[1], 16))](
            x, y, x.shape[0], x.shape[1], *x.stride(), *y.stride(), BR=16, BC=16)
    assert torch.equal(y, x * 2)


@pytest.mark.parametrize("layout", ["column slice", "step 2", "transposed", "expanded", "offset slice"])
def test_a_kernel_that_uses_the_strides_passes_on_views_that_are_not_contiguous(layout):
    base = torch.randn(12, 8)
    x = {"column slice": base[:, :3], "step 2": base[::2, ::2], "transposed": base.t(),
         "expanded": base[3:4].expand(5, 8), "offset slice": base[2:9, 1:6]}[layout]
    y = torch.full((x.shape[1], x.shape[0]), float("nan")).t()
    with checked():
        tile_2d[(triton.cdiv(x.shape[0], 16), triton.cdiv(x.shape[1], 16))](
            x, y, x.shape[0], x.shape[1], *x.stride(), *y.stride(), BR=16, BC=16)
    assert torch.equal(y, x * 2)


def test_a_flat_kernel_passes_on_a_permuted_contiguous_tensor_and_a_one_dimensional_step():
    x = torch.randn(6, 5).t()  # every element of its span is its own: a flat walk reads them all
    y = torch.full((30,), float("nan"))
    with checked():
        flat_copy[(1,)](x, y, 30, BLOCK=32)
    every_other = torch.randn(40)[::2]
    z = torch.full((20,), float("nan"))
    with checked():
        strided_copy[(1,)](every_other, z, 20, 2, BLOCK=32)  # offset i * 2: the view's own elements
    assert torch.equal(z, every_other)


def test_block_pointers_with_boundary_check_pass():
    x, y = torch.randn(37, 20), torch.full((37, 20), float("nan"))
    with checked():
        block_pointer_copy[(triton.cdiv(37, 16),)](x, y, 37, 20, BR=16, BC=32)
    assert torch.equal(x, y)


def test_every_program_reading_the_same_weights_is_not_a_race():
    x, w, y = torch.randn(6, 10), torch.randn(10), torch.full((6, 10), float("nan"))
    with checked():
        scale_rows[(6,)](x, w, y, 10, BC=16)
    assert torch.equal(y, x * w)


def test_in_place_kernel_loading_and_storing_its_own_block_is_not_a_race():
    x = torch.randn(300)
    expected = x * 2
    with checked():
        double_in_place[(5,)](x, 300, BLOCK=64)
    assert torch.equal(x, expected)


def test_atomic_add_from_every_program_is_not_a_race():
    x, out = torch.rand(1000), torch.zeros(1)
    with checked():
        sum_atomic[(8,)](x, out, 1000, BLOCK=128)
    assert out.item() == pytest.approx(x.double().sum().item(), rel=1e-5)


def test_atomic_histogram_and_compare_and_swap_are_not_races():
    x = torch.randint(0, 8, (500,), dtype=torch.int32)
    bins, first = torch.zeros(8, dtype=torch.int32), torch.full((1,), -1, dtype=torch.int32)
    with checked():
        histogram_and_first_claim[(4,)](x, bins, first, 500, BINS=8, BLOCK=128)
    assert torch.equal(bins, torch.bincount(x, minlength=8).to(torch.int32))
    assert first.item() == 0  # the interpreter runs program 0 first


def test_the_same_tensor_passed_twice_is_checked_as_one_allocation():
    x = torch.randn(256)
    with checked():
        copy_masked[(4,)](x, x, 256, BLOCK=64)  # each program copies its own block onto itself


# -- bounds -------------------------------------------------------------------------------------------

def test_unmasked_tail_load_is_reported_with_line_argument_offset_and_size():
    x, y = torch.randn(100), torch.zeros(100)
    with checked(), pytest.raises(OutOfBounds) as report:
        copy_unmasked_load[(2,)](x, y, 100, BLOCK=64)
    message = str(report.value)
    assert isinstance(report.value, IndexError)
    assert "out-of-bounds load in kernel copy_unmasked_load" in message
    assert f"{HERE}:" in message and "x = tl.load(x_ptr + offs)  # no mask" in message
    assert "argument x_ptr: element offset 100 (28 lanes out of bounds, offsets 100..127)" in message
    assert "the tensor has 100 elements, valid offsets 0..99" in message
    assert "program (1, 0, 0)" in message


def test_unmasked_tail_store_is_stopped_before_memory_is_touched():
    buffer = torch.full((128,), 7.0)
    y = buffer[:100]  # the view ends at 100; what lies behind it must stay 7
    x = torch.randn(100)
    with checked(), pytest.raises(OutOfBounds, match=r"(?s)out-of-bounds store .* argument y_ptr: element offset 100"):
        copy_unmasked_store[(2,)](x, y, 100, BLOCK=64)
    assert torch.equal(buffer[100:], torch.full((28,), 7.0))


def test_allow_base_accepts_a_view_reading_inside_its_allocation():
    buffer = torch.randn(128)
    x, y = buffer[:100], torch.zeros(128)
    with checked(allow_base=True):
        copy_unmasked_load[(2,)](x, y, 128, BLOCK=64)
    assert torch.equal(y, buffer)
    with checked(), pytest.raises(OutOfBounds, match="argument x_ptr: element offset 100"):
        copy_unmasked_load[(2,)](x, y, 128, BLOCK=64)


def test_reading_before_the_start_reports_a_negative_offset():
    x, y = torch.randn(64), torch.zeros(64)
    with checked(), pytest.raises(OutOfBounds, match=r"(?s)argument x_ptr: element offset -1; .*program \(0, 0, 0\)"):
        shift_left[(1,)](x, y, 64, BLOCK=64)


def test_a_far_overrun_is_an_index_error_not_a_crash():
    x, y = torch.randn(16), torch.zeros(1)
    with checked(), pytest.raises(OutOfBounds, match=f"argument x_ptr: element offset {2**40}"):
        far_overrun[(1,)](x, y, FAR=2**40)


def test_a_2d_kernel_ignoring_the_strides_is_reported_on_a_transposed_input():
    x = torch.randn(64, 48).t()[:, :40]  # 48 x 40 view whose rows are 64 elements apart
    y = torch.zeros(48, 40)
    # x's extent spans (47 + 39 * 64 + 1) elements; row * cols + col stays inside it, so this
    # kernel is wrong without leaving x: bounds checks cannot see that (see the race and the
    # value checks instead), but y, written with the same indexing, is exactly in bounds.
    with checked():
        tile_2d_contiguous_only[(3, 3)](x, y, 48, 40, BR=16, BC=16)
    assert not torch.equal(y, x)
    small = torch.randn(40, 48)[:20]  # rows beyond 20 belong to the base, not the view
    with checked(), pytest.raises(OutOfBounds, match="argument x_ptr"):
        tile_2d_contiguous_only[(3, 3)](small, y, 48, 40, BR=16, BC=16)


# -- exact views: inside the span is not enough ----------------------------------------------------

def test_a_flat_kernel_on_a_column_slice_is_reported_with_the_view_shape_strides_and_nearest_element():
    x = torch.randn(4, 8)[:, :3]  # 12 elements spread over a span of 27
    y = torch.full((12,), float("nan"))
    with checked(), pytest.raises(OutOfBounds) as report:
        flat_copy[(1,)](x, y, 12, BLOCK=16)
    message = str(report.value)
    assert "out-of-bounds load in kernel flat_copy" in message
    assert "x = tl.load(x_ptr + offs, mask=mask)  # element i at offset i" in message
    assert ("argument x_ptr: element offset 3 (6 lanes outside the view, offsets 3..11); "
            "the view's 12 elements lie between offsets 0..26 and 3 falls between them") in message
    assert "view: shape (4, 3), strides (8, 1) (in elements); nearest element [0, 2] at offset 2" in message
    assert y.isnan().all()  # raised before anything was stored


def test_a_flat_kernel_on_a_step_2_view_is_reported():
    x = torch.randn(16)[::2]
    y = torch.full((8,), float("nan"))
    with checked(), pytest.raises(OutOfBounds) as report:
        flat_copy[(1,)](x, y, 8, BLOCK=8)
    message = str(report.value)
    assert "argument x_ptr: element offset 1 (4 lanes outside the view, offsets 1..7)" in message
    assert "view: shape (8,), strides (2,) (in elements); nearest element [0] at offset 0" in message


def test_allow_base_still_accepts_the_whole_allocation_of_a_column_slice():
    base = torch.randn(4, 8)
    y = torch.full((27,), float("nan"))
    with checked(allow_base=True):
        flat_copy[(1,)](base[:, :3], y, 27, BLOCK=32)
    assert torch.equal(y, base.reshape(-1)[:27])


def test_a_store_between_the_elements_of_a_step_2_view_is_stopped_before_memory_is_touched():
    buffer = torch.full((16,), 7.0)
    with checked(), pytest.raises(OutOfBounds, match=r"(?s)out-of-bounds store .*argument y_ptr: element offset 1 "):
        flat_copy[(1,)](torch.randn(8), buffer[::2], 8, BLOCK=8)
    assert torch.equal(buffer, torch.full((16,), 7.0))


def test_an_expanded_view_is_read_as_its_elements():
    row = torch.randn(1, 8)
    x = row.expand(3, 8)  # stride 0: three rows, one row of memory
    y = torch.full((8,), float("nan"))
    with checked():
        flat_copy[(1,)](x, y, 8, BLOCK=8)  # the first row
    assert torch.equal(y, row[0])
    with checked(), pytest.raises(OutOfBounds, match=r"shape \(3, 8\), strides \(0, 1\)"):
        flat_copy[(1,)](x, torch.zeros(24), 24, BLOCK=32)  # 24 elements of memory it does not have


# -- races --------------------------------------------------------------------------------------------

def test_load_add_store_from_every_program_is_reported_as_a_race_with_both_programs():
    x, out = torch.rand(256), torch.zeros(1)
    with checked(), pytest.raises(DataRace) as report:
        sum_racy[(4,)](x, out, 256, BLOCK=64)
    message = str(report.value)
    assert "data race in kernel sum_racy on argument out_ptr, element 0" in message
    assert "program (1, 0, 0) loads it at" in message and "program (0, 0, 0) stored it at" in message
    assert message.count("tl.store(out_ptr, tl.load(out_ptr) + part)") == 2


def test_two_programs_storing_one_element_is_reported():
    x, out = torch.rand(256), torch.zeros(2)
    with checked(), pytest.raises(DataRace, match=r"program \(1, 0, 0\) stores it at(.|\n)*program \(0, 0, 0\) stored"):
        pairs_store_same_element[(4,)](x, out, BLOCK=64)


def test_loading_what_another_program_stored_is_reported():
    x, y = torch.randn(128), torch.zeros(128)
    with checked(), pytest.raises(DataRace, match=r"program \(1, 0, 0\) loads it .*\n.*\n.*program \(0, 0, 0\) stored"):
        read_neighbour_output[(2,)](x, y, 128, BLOCK=64)


def test_races_false_checks_bounds_only():
    x, out = torch.rand(256), torch.zeros(1)
    with checked(races=False):
        sum_racy[(4,)](x, out, 256, BLOCK=64)  # sequential interpreter: the racy sum comes out right here
    assert out.item() == pytest.approx(x.double().sum().item(), rel=1e-5)


def test_each_launch_starts_with_a_clean_record():
    x = torch.randn(128)
    y = torch.zeros(128)
    with checked():
        for _ in range(3):  # the same elements, written by the same programs, launch after launch
            copy_masked[(2,)](x, y, 128, BLOCK=64)


# -- scope, environment, versions ---------------------------------------------------------------------

def test_outside_the_block_nothing_is_patched():
    from triton.runtime import interpreter
    before = type(interpreter.interpreter_builder).create_masked_load
    with checked():
        assert type(interpreter.interpreter_builder).create_masked_load is not before
        with checked():
            pass
        assert type(interpreter.interpreter_builder).create_masked_load is not before
    assert type(interpreter.interpreter_builder).create_masked_load is before


def test_an_unsupported_triton_is_refused_with_a_clear_message(monkeypatch):
    monkeypatch.setattr(triton, "__version__", "3.1.0")
    with pytest.raises(CheckedModeUnavailable, match=r"needs Triton 3\.2 or newer; this is Triton 3\.1\.0"):
        with checked():
            pass


def test_without_the_interpreter_it_says_how_to_get_it(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET")
    with pytest.raises(CheckedModeUnavailable, match="set TRITON_INTERPRET=1 before triton is imported"):
        with checked():
            pass


SCRIPT = textwrap.dedent("""
    import torch, triton, triton.language as tl

    @triton.jit
    def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))

    copy[(2,)](torch.randn(100), torch.zeros(128), BLOCK=64)
    print("finished")
""")


def test_triton_ships_its_race_detector_gsan_from_3_8_on():
    """docs/*/debugging/checkers-compared.md#races: triton.experimental.gsan is in Triton 3.8 and later, not before
    (the version matrix runs this against each release)."""
    import importlib.util

    version = tuple(int(part) for part in triton.__version__.split(".")[:2])
    try:
        ships = importlib.util.find_spec("triton.experimental.gsan") is not None
    except ModuleNotFoundError:  # no triton.experimental at all (3.2, 3.3)
        ships = False
    assert ships == (version >= (3, 8))


def test_importing_the_package_changes_nothing():
    result = subprocess.run([sys.executable, "-c", "import sys, triton_checked; "
                             "print(sorted(m for m in ('triton', 'numpy', 'torch') if m in sys.modules))"],
                            capture_output=True, text=True, timeout=60, cwd=os.path.dirname(PACKAGE))
    assert result.stdout.strip() == "[]", result.stderr


@pytest.mark.slow
def test_the_package_installs_with_pip_and_works_outside_the_repository(tmp_path):
    """pip install ./triton_checked (not editable) beside Triton and a kernel package named triton_*, as in
    one site-packages; then, from a folder outside the repository: the package, its command (the report
    at the kernel's own line, launched from the script's line, without a traceback), and its pytest
    fixture (loaded by pytest itself, no -p)."""
    source, target, work = tmp_path / "triton_checked", tmp_path / "site-packages", tmp_path / "work"
    work.mkdir()
    shutil.copytree(PACKAGE, source,  # a copy: the build leaves no files in the clone
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--no-build-isolation", "--no-compile", "--target", str(target), str(source)],
                   check=True, capture_output=True, text=True, timeout=300)
    # site-packages/triton beside site-packages/triton_checked and site-packages/triton_mykernels: the names
    # share the prefix "site-packages/triton"
    (target / "triton").symlink_to(os.path.dirname(triton.__file__), target_is_directory=True)
    (target / "triton_mykernels").mkdir()
    (target / "triton_mykernels" / "__init__.py").write_text(KERNELS)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_FAQ")}
    env.update(PYTHONPATH=str(target), TRITON_INTERPRET="1")
    found = subprocess.run([sys.executable, "-c", "import triton, triton_checked; print(triton_checked.__file__); "
                            "print(triton.__file__)"], capture_output=True, text=True, env=env, timeout=60, cwd=work)
    assert found.stdout.split() == [str(target / "triton_checked" / "__init__.py"),
                                    str(target / "triton" / "__init__.py")], found.stderr
    (work / "script.py").write_text(SCRIPT)
    command = subprocess.run([sys.executable, "-m", "triton_checked", "script.py"], capture_output=True, text=True,
                             env=env, timeout=120, cwd=work)
    assert command.returncode == 1 and command.stderr.startswith(
        "triton_checked: OutOfBounds: out-of-bounds load in kernel copy"), command.stderr
    assert "launched from script.py:9 in <module>" in command.stderr and "Traceback" not in command.stderr
    (work / "packaged.py").write_text("import torch\nfrom triton_mykernels import copy\n\n"
                                      "copy[(2,)](torch.randn(100), torch.zeros(128), BLOCK=64)\n")
    command = subprocess.run([sys.executable, "-m", "triton_checked", "packaged.py"], capture_output=True,
                             text=True, env=env, timeout=120, cwd=work)
    assert command.returncode == 1, command.stderr
    assert f"in kernel copy at {target / 'triton_mykernels' / '__init__.py'}:7 in copy" in command.stderr
    assert "launched from packaged.py:4 in <module>" in command.stderr
    (work / "test_fixture.py").write_text(textwrap.dedent("""
        import pytest, torch
        import triton, triton.language as tl
        from triton_checked import OutOfBounds

        @triton.jit
        def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs))

        def test_reported(checked_interpreter):
            with pytest.raises(OutOfBounds, match="element offset 10"):
                copy[(1,)](torch.randn(10), torch.zeros(16), BLOCK=16)
    """))
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_fixture.py"],
                           capture_output=True, text=True, env=env, timeout=120, cwd=work)
    assert tests.returncode == 0 and "1 passed" in tests.stdout, tests.stdout + tests.stderr


KERNELS = """import triton
import triton.language as tl

@triton.jit
def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))
"""


def test_the_tests_run_without_the_handbook(tmp_path):
    """The package's tests import nothing of the handbook: run from a copy of the package alone."""
    copy = tmp_path / "triton_checked"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_FAQ") and k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(tmp_path)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                             "tests/test_patterns.py", "-k", "spin_lock or int32 or column_mask"],
                            capture_output=True, text=True, env=env, timeout=300, cwd=copy)
    assert result.returncode == 0 and " passed" in result.stdout, result.stdout[-2000:] + result.stderr[-2000:]
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as stream:
                    text = stream.read()
                handbook = "triton" + "_faq"  # spelt apart so that this line does not find itself
                assert f"import {handbook}" not in text and f"from {handbook}" not in text, name
