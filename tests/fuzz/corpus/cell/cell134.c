int biggest = MAX(p1, 7);
MAX(biggest, 3) + 1
