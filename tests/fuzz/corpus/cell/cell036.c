int i = 0, *p = &i, k;
*p = 7;
k = i + 1;
