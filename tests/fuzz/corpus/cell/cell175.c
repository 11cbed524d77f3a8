%whos
