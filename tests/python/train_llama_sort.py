"""tests/python/train_llama_sort.py — the CTest fixture model_train.llama_sort: trains
`attn model train sort --arch llama` (the defaults; a few steps in the sanitizer build) into
the folder given, once per CTest run, for tests/python/test_model_train_llama_sort.py."""
import os
import subprocess
import sys

out = os.path.join(sys.argv[1], "sort.safetensors")
os.makedirs(sys.argv[1], exist_ok=True)
args = [os.environ.get("ATTN_BIN", "build/attn"), "model", "train", "sort", "--arch", "llama", "--threads", "2",
        "--out", out]
if os.environ.get("ATTN_SLOW_BUILD", "0") == "1":
    args += ["--iters", "5", "--batch", "8"]
sys.exit(subprocess.run(args).returncode)
