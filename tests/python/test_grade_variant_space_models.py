#!/usr/bin/env python3
"""tests/python/test_grade_variant_space_models.py — test_grade_variant_space.py for lessons
20–22's model exercises (a run of its own: each draw runs a trained head)."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(subprocess.run([sys.executable, os.path.join(here, "test_grade_variant_space.py"), "models"]).returncode)
