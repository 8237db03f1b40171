package engine

const sysRenameat2 = 276
