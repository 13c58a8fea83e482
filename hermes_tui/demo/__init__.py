"""``hermes-tui --demo``: a seeded temporary home and a scripted model on loopback, fully offline."""
