import sys

from vyre.daemon.process import main

sys.exit(main(sys.argv[1:]))
