import sys

from deployah_plan.cli import main

sys.exit(main())
