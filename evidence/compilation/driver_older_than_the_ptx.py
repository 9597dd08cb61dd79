"""TP065's GPU evidence (`triton-faq bench`): this GPU's driver, the PTX Triton writes, and what the driver says to PTX newer than it knows."""

from snippets.compilation import driver_older_than_the_ptx as entry
from triton_faq.evidence import gpu_evidence, label, table


def loaded(image):
    try:
        entry.load(image)
    except RuntimeError as error:
        return str(error)
    return "loaded"


@gpu_evidence("driver-and-images")
def driver_and_images():
    """What Triton's loader (cuModuleLoadData) answers for the kernel's PTX at and above the driver's PTX ISA, and for the cubin."""
    from triton.backends.nvidia.compiler import ptx_get_version

    driver = entry.driver_cuda_version()
    newest = ptx_get_version(driver)
    kernel = entry.compile_for(90)
    cubin = kernel.asm["cubin"]
    rows = [
        [f"cubin from ptxas {entry.ptxas_cuda_version()} (PTX {entry.ptx_isa(kernel)})", loaded(cubin)],
        [f"PTX .version {newest // 10}.{newest % 10} (the driver's newest)",
         loaded(entry.ptx_with_version(kernel, f"{newest // 10}.{newest % 10}"))],
        [f"PTX .version {(newest + 1) // 10}.{(newest + 1) % 10} (one newer)",
         loaded(entry.ptx_with_version(kernel, f"{(newest + 1) // 10}.{(newest + 1) % 10}"))],
    ]
    columns = [label("image handed to the driver", "交给驱动的镜像", "image"), label("result", "结果", "result")]
    return table(columns, rows, driver_cuda=driver, ptxas_cuda=entry.ptxas_cuda_version())
