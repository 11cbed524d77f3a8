double counter = 0.5;
