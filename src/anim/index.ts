/** cairn/anim: animation state machine with clip aliases, mixer driver, retargeting. */
export * from './state-machine.ts';
export * from './mixer-driver.ts';
