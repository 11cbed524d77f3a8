enum color c = BLUE;
c
