int assigned;
assigned = 3
