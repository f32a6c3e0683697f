"""The simulated oracle: every statistical procedure the product decides with, driven with planted
effects and seeded noise of the sizes measured on the lab machine (simulate.py), its decisions and
error rates asserted over many seeded trials. Deterministic: no server, no clock, no retry."""
