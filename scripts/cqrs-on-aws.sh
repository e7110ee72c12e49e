#!/usr/bin/env bash
# Runs the kura-cqrs suite against AWS DynamoDB itself, in the account and region of the
# credentials in the environment, then deletes every table it made (and only those).
#
#   AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... [AWS_SESSION_TOKEN=...] \
#   AWS_REGION=eu-west-1 scripts/cqrs-on-aws.sh [cargo test filters...]
#
# What it costs: on-demand tables (a few hundred, created and deleted within the run),
# a few thousand requests: cents. The credentials need dynamodb:* and dynamodb streams
# read access on tables named `kuracqrs<run>-*`.
#
# It has not been run from this repository's CI (no AWS account there): DynamoDB Local
# stands in for AWS in the test command. Where AWS may differ from both local engines
# (GSIs are eventually consistent, tables take seconds to become ACTIVE, streams shards
# split on their own), the suite's tests wait or read strongly as they do on DynamoDB
# Local; a failure here that Kura and DynamoDB Local do not show is a finding to report.
set -euo pipefail
cd "$(dirname "$0")/.."

for name in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION; do
  if [ -z "${!name:-}" ]; then
    echo "cqrs-on-aws: set $name (and AWS_SESSION_TOKEN for temporary credentials)" >&2
    exit 2
  fi
done
run="kuracqrs$(date +%s)"
export KURA_CQRS_TEST_ENV="$run"
export KURA_ENDPOINT="https://dynamodb.${AWS_REGION}.amazonaws.com"
export KURA_STREAMS_ENDPOINT="https://streams.dynamodb.${AWS_REGION}.amazonaws.com"
echo "cqrs-on-aws: tables ${run}-*, in ${AWS_REGION}"

# Deletes the run's tables, whatever the suite's outcome (through the AWS CLI when it is
# there, else through the same SDK the suite uses).
cleanup() {
  local tables
  if command -v aws >/dev/null; then
    tables=$(aws dynamodb list-tables --region "$AWS_REGION" --query 'TableNames[]' --output text |
      tr '\t' '\n' | grep "^${run}-" || true)
    for table in $tables; do
      aws dynamodb delete-table --region "$AWS_REGION" --table-name "$table" >/dev/null &&
        echo "deleted $table"
    done
  else
    echo "cqrs-on-aws: no AWS CLI to delete the tables ${run}-*: delete them by hand" >&2
  fi
}
trap cleanup EXIT

# One test at a time: AWS limits how many tables are CREATING at once per account.
cargo test -p kura-cqrs --features tls "$@" -- --test-threads=1
