"""The version of this package, which must be its libfp8kit.so's (fp8kit.h:
FP8KIT_VERSION_STRING; tests/python/test_package.py checks that they agree)."""

__version__ = "0.2.0"
