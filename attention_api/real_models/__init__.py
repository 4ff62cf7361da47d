"""The real pretrained models' routes: their request, runs and answers."""
