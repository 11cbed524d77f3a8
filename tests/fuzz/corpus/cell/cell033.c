int a[] = {1, 2, 3};
sizeof a / sizeof a[0]
