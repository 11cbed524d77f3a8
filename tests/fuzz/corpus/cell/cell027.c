int total = 0;
for (int i = 1; i <= 4; i++) {
    total += i;
}
printf("total = %d\n", total);
total * 10
