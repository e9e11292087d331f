# Class 6: capabilities written as strings.


def pick_fp4_kernel(sm):
    if sm in ["120", "121"]:
        return "fp4_sm12x"
    return None


def build_flags(arch):
    if arch == "100":
        return ["-gencode", "arch=compute_100a,code=sm_100a"]
    raise RuntimeError("unsupported arch " + arch)


def gencode_for(capability):
    if capability.startswith("10.0"):
        num = "100a"
    elif capability.startswith("9.0"):
        num = "90a"
    else:
        return None
    return num
