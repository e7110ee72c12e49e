//! Contributor Insights: UpdateContributorInsights, DescribeContributorInsights,
//! ListContributorInsights (authorized on the table they name, with the control plane).

use kura_engine::api::{
    DescribeContributorInsightsInput, ListContributorInsightsInput, UpdateContributorInsightsInput,
};

use super::{Call, json};
use crate::error::ApiError;

pub async fn update_contributor_insights(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateContributorInsightsInput = call.input()?;
    json(&call.engine.update_contributor_insights(input).await?)
}

pub fn describe_contributor_insights(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeContributorInsightsInput = call.input()?;
    json(&call.engine.describe_contributor_insights(input)?)
}

pub fn list_contributor_insights(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListContributorInsightsInput = call.input()?;
    json(&call.engine.list_contributor_insights(input)?)
}
