"""A replay's planned rounds and passes when the request names none (ReplayCreate, schemas.py), apart
from the schemas so the command line reads them for its options' defaults without importing the
statistics."""

# Rounds and passes per round: many short rounds over few long ones. The interval is a 20 % trimmed
# mean over the rounds (results/stats/paired.py), so 10 rounds keep 6 values and Student's t on 4
# degrees of freedom (2.78), 20 keep 12 on 10 (2.23); and with the variants taking turns pass by pass
# (engine.py "pass") a pass more in a round adds little that another round does not. On the lab
# machine (bench/replay_resolution.py, A/A, by pass) 20 x 2 gave a median smallest detectable change
# of 8.7 % in 136 s against 11.9 % in 173 s for 10 x 5 (loaded host); 8.5 % in 131 s on a quiet one.
DEFAULT_ROUNDS = 20
DEFAULT_PASSES = 2
