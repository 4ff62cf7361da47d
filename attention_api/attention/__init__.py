"""The attention request and its answer: POST /api/attention, the presets, the scaling lab,
and how many heavy requests a process serves at once."""
