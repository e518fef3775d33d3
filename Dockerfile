# One image for the worker, the sandbox and the CLI; the command picks the role.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts
COPY bin ./bin
COPY src ./src
COPY workers ./workers
COPY samples ./samples
COPY tsconfig.json ./
ENV NODE_ENV=production
ENTRYPOINT ["node", "bin/campaign.js"]
CMD ["worker"]
