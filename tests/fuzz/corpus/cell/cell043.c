double x = 2.5;
