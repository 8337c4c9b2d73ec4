export const dashboardKeys = {
  all: ["dashboard"] as const,
};
