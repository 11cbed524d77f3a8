weight = 2;
total.n = 0;
total.sum = 0;
weighted_sum_of_squares(3)
