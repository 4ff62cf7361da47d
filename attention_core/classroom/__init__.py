"""The classroom's maths: exercises at levels of help with hand-friendly numbers and their
blanks (exercises.py), and the hints for a wrong answer (diagnosis.py, its maths as TeX in
hintmaths.py). Numpy and the standard library only, as all of attention_core."""
