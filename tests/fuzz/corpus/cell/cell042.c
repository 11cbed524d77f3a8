int x = 1;
