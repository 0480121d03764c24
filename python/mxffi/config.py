"""Where the installed mxffi is, for building outside libraries against it.

python -m mxffi.config --cmakedir     # for -DCMAKE_PREFIX_PATH / -Dmxffi_DIR
python -m mxffi.config --includedir --libdir
"""

import argparse
import sys

from ._ffi import libinfo


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m mxffi.config", description="Print where mxffi's files are installed."
    )
    parser.add_argument("--includedir", action="store_true", help="the C/C++ header directory")
    parser.add_argument("--libdir", action="store_true", help="the directory of libmxffi.so")
    parser.add_argument("--cmakedir", action="store_true", help="the mxffiConfig.cmake directory")
    args = parser.parse_args(argv)
    if not (args.includedir or args.libdir or args.cmakedir):
        parser.print_help()
        return 2
    if args.includedir:
        print(libinfo.include_dir())
    if args.libdir:
        print(libinfo.lib_dir())
    if args.cmakedir:
        print(libinfo.cmake_dir())
    return 0


if __name__ == "__main__":
    sys.exit(main())
