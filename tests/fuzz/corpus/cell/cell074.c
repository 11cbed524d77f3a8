char c = 'A';
c
