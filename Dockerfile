# One image for the worker, the sandbox, the webhook service and the CLI; the command picks the role.
# Build stage: every dependency, then `npm run build` compiles src/ and workers/ to dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY workers ./workers
RUN npm run build

# Run stage: production dependencies and the compiled code only (no TypeScript, no tsx).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts
COPY bin ./bin
COPY --from=build /app/dist ./dist
COPY samples ./samples
ENV NODE_ENV=production
ENTRYPOINT ["node", "bin/campaign.js"]
CMD ["worker"]
