export const relevanceCases = {};
