from deployah_plan.cli import run

run()
