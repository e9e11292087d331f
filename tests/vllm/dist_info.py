"""Makes fp8kit visible to importlib.metadata without installing it: writes
DEST/<name>-<version>.dist-info (METADATA, entry_points.txt) from SOURCE_DIR/pyproject.toml,
so that with DEST and SOURCE_DIR/python on PYTHONPATH, vLLM's load_general_plugins()
finds the entry points `pip install` would declare. The shared vLLM environment stays
untouched (every clone and build tree gets its own DEST).

    python dist_info.py SOURCE_DIR DEST
"""

import re
import shutil
import sys
import tomllib
from pathlib import Path


def main(source, dest):
    project = tomllib.loads((Path(source) / "pyproject.toml").read_text())["project"]
    # The version is dynamic (pyproject.toml): python/fp8kit/_version.py's.
    version_file = (Path(source) / "python" / "fp8kit" / "_version.py").read_text()
    name, version = project["name"], re.search(r'__version__ = "([^"]+)"', version_file).group(1)
    dest = Path(dest)
    for stale in dest.glob(f"{name}-*.dist-info"):
        shutil.rmtree(stale)
    info = dest / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    groups = project.get("entry-points", {})
    text = "".join(f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in entries.items()) + "\n"
                   for group, entries in groups.items() if entries)
    (info / "entry_points.txt").write_text(text)


if __name__ == "__main__":
    main(*sys.argv[1:3])
