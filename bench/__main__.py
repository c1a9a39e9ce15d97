"""Entry point: ``python -m bench [--quick] [--only SECTION[,SECTION]] [--repeat N]``."""
import sys

from . import main

if __name__ == "__main__":
    main(sys.argv[1:])
    sys.exit(0)
