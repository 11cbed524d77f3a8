weighted_sum_of_squares(10)
