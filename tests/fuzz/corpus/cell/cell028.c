int k = 0;
while (k < 3) k++;
if (k == 3)
    printf("k reached %d\n", k);
else
    printf("wrong\n");
