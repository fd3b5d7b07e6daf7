from deployah_plan.entry import run

run()
