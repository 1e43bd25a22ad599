import sys

from cint_compiler.cli import main

sys.exit(main())
