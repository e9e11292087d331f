# Class 6: a capability dictionary used as a lookup.
SM_TILES = {(10, 0): 256, (9, 0): 128}


def tile_checked(cc):
    if cc not in SM_TILES:
        raise ValueError("no tile for this GPU")
    return SM_TILES[cc]


def tile_unchecked(cc):
    return SM_TILES[cc]


def tile_or_default(cc):
    return SM_TILES.get(cc, 64)
