export const appKeys = {
  all: ["app"] as const,
  status: ["app", "status"] as const,
  meanings: ["app", "meanings"] as const,
  notification: ["app", "notification"] as const,
};
