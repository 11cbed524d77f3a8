SWAP(p1, p2);
p1 * 10 + p2
