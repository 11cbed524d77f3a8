%%cc
acc_t total = {0, 0};
double weighted_sum_of_squares(int n)
{
    for (int i = 1; i <= n; i++) {
        total.n++;
        total.sum += weight * square(i);
    }
    return total.sum;
}
