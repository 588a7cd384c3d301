// msgpackr (BullMQ's encoder) loads this in a try/catch and uses its JavaScript decoder when the
// require fails, which is all the workbench needs.
throw new Error('msgpackr-extract is not installed: msgpackr uses its JavaScript decoder');
