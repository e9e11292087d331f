# A test file: set aside unless --include-tests.
import torch
if torch.cuda.get_device_capability() == (12, 0):
    pass
