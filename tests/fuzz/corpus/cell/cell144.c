m1 + m2
