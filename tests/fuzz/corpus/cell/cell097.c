label
