"""A small hand-written hardware profile the editing tests write and edit (not a test module): every required field,
one peak, no price."""

LAB_GPU = """type: hardware
name: {name}
display_name: {display}
kind: gpu
memory: 80 GB
memory_bandwidth: 2 TB/s
peak_flops: {{bf16: 500 TFLOP/s}}
on_chip_cache: 40 MiB
{extra}link_bandwidth: 100 GB/s
link_latency: 5 us
efficiency: {{memory: 0.8, compute: 0.7, link: 0.8}}
step_overhead: 20 us
source: my lab
notes: none
"""


def lab_gpu(name: str = "lab", display: str = "Lab GPU", extra: str = "") -> str:
    """The profile's text, named `name` and displayed as `display`, with the lines `extra` before link_bandwidth."""
    return LAB_GPU.format(name=name, display=display, extra=extra)
