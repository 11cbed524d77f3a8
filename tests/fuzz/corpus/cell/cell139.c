lone
