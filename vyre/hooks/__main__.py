import sys

from vyre.hooks.run import main

sys.exit(main(sys.argv))
