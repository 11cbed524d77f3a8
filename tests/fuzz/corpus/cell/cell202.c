cubed(3) + total.n
