# Class 4: configurations keyed by an exact capability. The GPU the test
# misses gets another (likely slower) configuration: a warning, not an error.


def default_tiles(capability):
    if capability == (10, 0):
        return {"BLOCK_M": 256, "BLOCK_N": 128}
    if capability[0] >= 10:
        return {"BLOCK_M": 128, "BLOCK_N": 128}
    return {"BLOCK_M": 64, "BLOCK_N": 64}


def stages_for(sm):
    return 4 if sm == 120 else 3
