export const beneficiaryKeys = {
  all: ["beneficiaries"] as const,
  list: ["beneficiaries", "list"] as const,
  approval: ["beneficiaries", "approval"] as const,
};
