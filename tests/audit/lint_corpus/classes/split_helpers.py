# Class 6: helper calls split across lines (trailing commas, keywords).
from vllm.platforms import current_platform


def use_sm100_kernel():
    if not current_platform.is_device_capability(
        100,
    ):
        raise NotImplementedError("needs SM100")
    return True


def use_sm120_kernel():
    if not current_platform.is_device_capability(
        capability=120
    ):
        raise NotImplementedError("needs SM120")
    return True
