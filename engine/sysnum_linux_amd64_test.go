package engine

const sysRenameat2 = 316
